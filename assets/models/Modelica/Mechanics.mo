within Modelica;
package Mechanics "Mechanical components (bundled subset: 1-D rotational)"
  extends Modelica.Icons.Package;

  package Rotational "1-D rotational mechanics"
    extends Modelica.Icons.Package;

    package Interfaces "Flanges and partial models"
      extends Modelica.Icons.Package;
      connector Flange_a "Driving flange (filled)"
        Modelica.Units.SI.Angle phi "Absolute rotation angle";
        flow Modelica.Units.SI.Torque tau "Cut torque into the flange";
      end Flange_a;
      connector Flange_b "Driven flange (open)"
        Modelica.Units.SI.Angle phi "Absolute rotation angle";
        flow Modelica.Units.SI.Torque tau "Cut torque into the flange";
      end Flange_b;
      connector Support "Support/housing flange"
        Modelica.Units.SI.Angle phi "Absolute rotation angle of the support";
        flow Modelica.Units.SI.Torque tau "Reaction torque in the support";
      end Support;

      partial model PartialCompliant "Two flanges joined by a compliant element"
        Modelica.Units.SI.Angle phi_rel(start = 0) "Relative angle flange_b - flange_a";
        Modelica.Units.SI.Torque tau "Torque from flange_a to flange_b";
        Flange_a flange_a annotation(Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
        Flange_b flange_b annotation(Placement(transformation(extent = {{90, -10}, {110, 10}})));
      equation
        phi_rel = flange_b.phi - flange_a.phi;
        flange_b.tau = tau;
        flange_a.tau = -tau;
      end PartialCompliant;
    end Interfaces;

    package Components "Inertias, springs, dampers, fixed housing"
      extends Modelica.Icons.Package;
      model Fixed "Flange fixed in the housing at a given angle"
        parameter Modelica.Units.SI.Angle phi0 = 0 "Fixed offset angle";
        Modelica.Mechanics.Rotational.Interfaces.Flange_b flange annotation(Placement(transformation(extent = {{-10, -10}, {10, 10}})));
      equation
        flange.phi = phi0;
      end Fixed;

      model Inertia "Rotational inertia"
        parameter Modelica.Units.SI.MomentOfInertia J(min = 0, start = 1) "Moment of inertia";
        Modelica.Mechanics.Rotational.Interfaces.Flange_a flange_a annotation(Placement(transformation(extent = {{-110, -10}, {-90, 10}})));
        Modelica.Mechanics.Rotational.Interfaces.Flange_b flange_b annotation(Placement(transformation(extent = {{90, -10}, {110, 10}})));
        Modelica.Units.SI.Angle phi(start = 0) "Absolute rotation angle";
        Modelica.Units.SI.AngularVelocity w(start = 0) "Absolute angular velocity";
        Modelica.Units.SI.AngularAcceleration a "Absolute angular acceleration";
      equation
        phi = flange_a.phi;
        phi = flange_b.phi;
        w = der(phi);
        a = der(w);
        J * a = flange_a.tau + flange_b.tau;
      end Inertia;

      model Spring "Linear rotational spring"
        extends Modelica.Mechanics.Rotational.Interfaces.PartialCompliant;
        parameter Modelica.Units.SI.RotationalSpringConstant c(min = 0, start = 1e5) "Spring constant";
        parameter Modelica.Units.SI.Angle phi_rel0 = 0 "Unstretched spring angle";
      equation
        tau = c * (phi_rel - phi_rel0);
      end Spring;

      model Damper "Linear rotational damper"
        extends Modelica.Mechanics.Rotational.Interfaces.PartialCompliant;
        parameter Modelica.Units.SI.RotationalDampingConstant d(min = 0, start = 0) "Damping constant";
        Modelica.Units.SI.AngularVelocity w_rel(start = 0) "Relative angular velocity";
      equation
        w_rel = der(phi_rel);
        tau = d * w_rel;
      end Damper;
    end Components;

    package Sources "Torque sources"
      extends Modelica.Icons.Package;
      model Torque "Torque set by a signal input, reacting on a support or the housing"
        parameter Boolean useSupport = false "= true: the reaction acts on the support flange";
        Modelica.Blocks.Interfaces.RealInput tau(unit = "N.m") "Accelerating torque on flange";
        Modelica.Mechanics.Rotational.Interfaces.Flange_b flange annotation(Placement(transformation(extent = {{90, -10}, {110, 10}})));
        Modelica.Mechanics.Rotational.Interfaces.Support support "Reaction flange" annotation(Placement(transformation(extent = {{-10, -110}, {10, -90}})));
      equation
        flange.tau = -tau;
        if useSupport then
          support.tau = tau;
        else
          support.phi = 0;
        end if;
      end Torque;
    end Sources;
  end Rotational;
end Mechanics;
